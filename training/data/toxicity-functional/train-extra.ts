/**
 * Extra TRAIN spec of the functional toxicity data (see `template.ts`): the targets of `train.ts`, with
 * more templates per functionality (varied lengths and registers: tweets, comments, reviews, chat, news
 * replies; slang, formal, sarcastic, caps, emoji, handles, hashtags) and `x_` slots whose values are in
 * neither `train.ts` nor the VALIDATION spec.
 */
import type { ToxSpec } from './template.ts';
import { TOXICITY_TRAIN } from './train.ts';
import { BENIGN_EXTRA_TEMPLATES } from './train-extra-benign.ts';
import { TOXIC_EXTRA_TEMPLATES } from './train-extra-toxic.ts';

export const TOXICITY_TRAIN_EXTRA: ToxSpec = {
  targets: TOXICITY_TRAIN.targets,
  templates: { ...TOXIC_EXTRA_TEMPLATES, ...BENIGN_EXTRA_TEMPLATES },
  slots: {
    x_bad_adj: [
      'greedy',
      'sneaky',
      'backward',
      'primitive',
      'smelly',
      'brainless',
      'treacherous',
      'degenerate',
      'uncivilised',
      'shifty',
      'freeloading',
      'two-faced',
    ],
    x_good_adj: ['reliable', 'clever', 'polite', 'loyal', 'responsible', 'competent', 'gentle', 'caring', 'thoughtful'],
    x_vermin: ['roaches', 'weevils', 'jackals', 'scavengers', 'hyenas', 'mongrels', 'woodlice'],
    x_vermin_one: ['leech', 'maggot', 'locust', 'beast', 'mongrel', 'hyena', 'slug'],
    x_plague: ['tumour', 'blight', 'cancerous growth', 'festering sore', 'contagion'],
    x_violence: ['strangle', 'knife', 'batter', 'bludgeon', 'curb-stomp', 'pistol-whip', 'torch', 'gut'],
    x_fate: ['gassed', 'strung up', 'put down', 'drowned', 'rounded up', 'sterilised', 'lined up and shot'],
    x_weapon: ['baseball bat', 'crowbar', 'machete', 'shotgun', 'hammer', 'tyre iron'],
    x_insult: ['muppet', 'buffoon', 'halfwit', 'imbecile', 'nitwit', 'weasel', 'numpty', 'bonehead', 'scumbag'],
    x_name: ['Darren', 'Chloe', 'Gareth', 'Fiona', 'Jamal', 'Wendy', 'Trevor', 'Aisha'],
    x_handle: [
      '@jdawg_88',
      '@truthbomb77',
      '@mike_h_writes',
      '@sunnyday_22',
      '@realtalk_tom',
      '@katie.b',
      '@grumpy_pete',
    ],
    x_place: ['Elm Street', 'our estate', 'Riverside Road', 'the high street', 'Maple Avenue', 'Station Road'],
    x_city: ['Leeds', 'Melbourne', 'Denver', 'Glasgow', 'Auckland', 'Bristol', 'Houston', 'Cardiff'],
    x_job: ['dentist', 'electrician', 'librarian', 'accountant', 'paramedic', 'architect', 'firefighter', 'pilot'],
    x_event: ['book fair', 'jazz night', 'job fair', 'food festival', 'film screening', 'charity run', 'open mic'],
    x_hobby: ['knitting', 'hiking', 'chess', 'rock climbing', 'baking', 'birdwatching'],
    x_day: ['Friday', 'Wednesday', 'Thursday', 'Tuesday'],
    x_outlet: ['The Herald', 'the local paper', 'The Gazette', 'the evening bulletin', 'the Chronicle'],
    x_object: [
      'tumble dryer',
      'smart TV',
      'kettle',
      'toaster',
      'blender',
      'tablet',
      'washing machine',
      'espresso maker',
    ],
    x_app: ['update', 'app', 'spreadsheet software', 'parking app', 'tax portal', 'game patch'],
    x_team: ['United', 'the Rovers', 'the Bears', 'City', 'the Sharks'],
    x_breed: ['lurcher', 'terrier', 'poodle', 'Dalmatian', 'husky', 'rottweiler', 'corgi', 'pointer'],
    x_surface: ['windowsill', 'dashboard', 'bar', 'picnic table'],
    x_fabric: ['theatre drapes', 'backdrop', 'set flats', 'banners'],
    x_garden: ['roses', 'rhubarb', 'tulip bulbs', 'hedge', 'apple tree'],
    x_process: ['stuck container', 'frozen browser tab', 'build job', 'zombie process', 'dev server', 'print spooler'],
    x_shoot: ['portraits', 'product photos', 'wedding video', 'music video', 'headshots', 'new ad'],
    x_script: ['backup script', 'nightly migration', 'test suite', 'deploy pipeline'],
    x_performer: [
      'soprano',
      'headliner',
      'drag queen',
      'lead guitarist',
      'saxophonist',
      'stand-up',
      'opening band',
      'DJ',
    ],
    x_room: ['gym', 'studio', 'garage', 'office', 'lab'],
    x_bird: ['heron', 'kingfisher', 'red kite', 'barn owl', 'woodpecker'],
    x_relative: ['aunt', 'sister', 'cousin', 'mum', 'gran'],
    x_weather: ['sleet', 'humidity', 'drizzle', 'heatwave', 'wind'],
  },
};
